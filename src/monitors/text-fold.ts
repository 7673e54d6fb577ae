/**
 * How monitors compare text (brand names, the words of two answers): one folding rule for both, so a brand found in
 * an answer and a word the similarity counts are read the same way. Pure.
 */

const COMBINING_MARK = /\p{M}/gu;

/**
 * One character folded: compatibility-decomposed (NFKD: "é" → "e" + U+0301, "ﬁ" → "fi"), case folded without a locale
 * (upper then lower case, so "ß" and "SS" both become "ss" and a final "ς" becomes "σ"), and its combining marks
 * dropped. Decomposing again after the case change drops marks that the case change introduces ("ǰ" → "J̌", "İ" → "i̇").
 */
export function foldCharacter(character: string): string {
  return character.normalize("NFKD").toUpperCase().toLowerCase().normalize("NFKD").replace(COMBINING_MARK, "");
}

/** A whole text folded character by character. */
export function foldText(text: string): string {
  let folded = "";
  for (const character of text) folded += foldCharacter(character);
  return folded;
}

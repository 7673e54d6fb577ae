/** Amazon Rufus's declarations (the shopping assistant, spec §2.6, §4.3): answer schema, countries, origin, domains. */
import { z } from "@hono/zod-openapi";
import { MARKETPLACE_COUNTRIES, MARKETPLACE_HOSTS } from "./marketplaces";

const RufusProductSchema = z
  .object({
    asin: z.string().openapi({ description: "Amazon Standard Identification Number", example: "B0EXAMPLE1" }),
    title: z.string().openapi({ description: "Product title as the card shows it", example: "Example Lamp, White" }),
    rating: z.string().openapi({ description: 'Average stars as shown ("4.5"; "" when the card has no rating)', example: "4.5" }),
    reviews: z.string().openapi({ description: 'Number of ratings as shown ("1,234"; "" when the card has no rating)', example: "1,234" }),
    url: z.string().openapi({
      description: "Product page on the marketplace: https://www.<domain>/dp/<ASIN>",
      example: "https://www.amazon.com/dp/B0EXAMPLE1",
    }),
    footer: z.string().openapi({ description: 'The one-line description under the card ("" when none)', example: "Bright and compact" }),
  })
  .openapi("RufusProduct");
export type RufusProduct = z.infer<typeof RufusProductSchema>;

export const RufusAnswerSchema = z.object({
  result: z.string(),
  result_markdown: z.string().nullable(),
  products: z.array(RufusProductSchema).openapi({ description: "Product cards Rufus showed, one per ASIN, in order" }),
  related_questions: z.array(z.string()).openapi({ description: "Follow-up questions Rufus suggested under its answer" }),
});
export type RufusAnswer = z.infer<typeof RufusAnswerSchema>;

export const RUFUS_COUNTRIES = {
  allowed: MARKETPLACE_COUNTRIES,
  allowedReason: `has no Amazon marketplace with Rufus; use one of ${MARKETPLACE_COUNTRIES.join(", ")}`,
};

/** Hosts the store pages load from besides the marketplace itself (images, scripts, sign-in). */
const STORE_ASSET_HOSTS = [
  "m.media-amazon.com",
  "images-na.ssl-images-amazon.com",
  "images-eu.ssl-images-amazon.com",
  "images-fe.ssl-images-amazon.com",
  "fls-na.amazon.com",
  "fls-eu.amazon.com",
  "fls-fe.amazon.com",
];

export const RUFUS_DOMAINS: readonly string[] = [...MARKETPLACE_HOSTS, ...STORE_ASSET_HOSTS];

/** A full response for the API reference, in the style of real output (a card without rating or footer shows ""). */
export const RUFUS_EXAMPLE = {
  scraper: "amazon_rufus",
  status: "done",
  job_id: "8e048cff-7a70-4e13-bba1-dbe2515d2711",
  prompt: "desk lamp for a small desk",
  country: "DE",
  result:
    "For a small desk, a clip-on or compact LED lamp saves space. Two picks:\n\n- Example Lamp, White: bright and compact\n- Clip-On Desk Lamp: clamps to a shelf",
  result_markdown:
    "For a small desk, a clip-on or compact LED lamp saves space. Two picks:\n\n- **Example Lamp, White**: bright and compact\n- **Clip-On Desk Lamp**: clamps to a shelf",
  products: [
    {
      asin: "B0EXAMPLE1",
      title: "Example Lamp, White",
      rating: "4.5",
      reviews: "1,234",
      url: "https://www.amazon.de/dp/B0EXAMPLE1",
      footer: "Bright and compact",
    },
    {
      asin: "B0DESKLMP2",
      title: "Clip-On Desk Lamp with 3 Color Modes",
      rating: "",
      reviews: "",
      url: "https://www.amazon.de/dp/B0DESKLMP2",
      footer: "",
    },
  ],
  related_questions: ["Is it dimmable?", "Compare with similar lamps"],
  credits_used: 3,
  elapsed_ms: 936,
  cached: false,
  markdown_url: "https://api.example.com/md/8e048cff-7a70-4e13-bba1-dbe2515d2711.md",
  served_by: {
    country: "DE",
    session: "anonymous",
    attempt: 1,
    hot_page: true,
    model_label: null,
    scraper_version: "amazon_rufus/2026.11.1",
    from_cache: false,
  },
  evidence: null,
};

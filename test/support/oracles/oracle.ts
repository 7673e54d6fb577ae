/**
 * What a scrape of a replica scenario must return, written from the scenario and the provider's sheet (§4 field
 * mapping) by hand, never by the code under test: no parser, renderer or URL helper of src/ is imported by an oracle.
 * The e2e tests and the fuzz sweep (`npm run fuzz`) compare every field of `expected` exactly.
 */
export interface OracleCase {
  /** The scenario's id, shown in reports. */
  id: string;
  /** Query parameters of `GET /scrapers/{scraper}` (prompt included; never api_key). */
  params: Readonly<Record<string, string>>;
  /** The provider's answer fields as the response must carry them (result, result_markdown, citations, …). */
  expected: Readonly<Record<string, unknown>>;
}

export interface ProviderOracle {
  provider: string;
  /** Every answered scenario a fuzz sweep may draw (fault scenarios excluded). */
  cases(): readonly OracleCase[];
}

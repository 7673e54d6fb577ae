/**
 * What the page lease (./page-lease.ts) knows of the page it handed out, reported to the scrape's work beside the page
 * session: the pipeline states it in the response's `served_by` (src/pipeline/served-by.ts). Its own module so that
 * code without the Workers runtime (the unit tests) can name it.
 */
export interface LeasedPageReport {
  /** The country whose pool the session came from: the browser was pinned to it (./localisation.ts). */
  country: string;
  /** Whether a provider account's session went into the page. */
  signedIn: boolean;
  /** Whether the scrape started from a hot page (the step log's `hot`). */
  hotPage: boolean;
}

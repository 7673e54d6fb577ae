/** Hono environment of the app: the Worker bindings plus per-request values set by middleware. */
export interface AppEnv {
  Bindings: Env;
  Variables: {
    /** ms since epoch when the request arrived, for `elapsed_ms`. */
    startedAt: number;
  };
}

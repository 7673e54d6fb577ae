/** The operator API as the browser-level tests call it over HTTP (`wrangler dev` on a free port, the test's admin token). */

/** A caller of `baseUrl`'s admin routes with `adminToken`: the parsed JSON of a 2xx, else an error naming the request. */
export function adminCaller(baseUrl: string, adminToken: string) {
  return async <T>(path: string, method: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { Authorization: `Bearer ${adminToken}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as T;
  };
}

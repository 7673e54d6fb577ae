/**
 * Who an operation is documented for, decided here and nowhere else: every route is declared once, and this split
 * sends it either to the customers' document (`GET /openapi.json`, rendered at `/docs`) or to the operator's
 * (`GET /admin/openapi.json`, behind the admin token, rendered at `/admin/docs`). The operator API is exactly the paths
 * under `/admin`, which are also exactly the routes that take the admin token.
 */
export type ApiAudience = "customer" | "operator";

export const OPERATOR_PATH_PREFIX = "/admin";

export function audienceOfPath(path: string): ApiAudience {
  return path === OPERATOR_PATH_PREFIX || path.startsWith(`${OPERATOR_PATH_PREFIX}/`) ? "operator" : "customer";
}

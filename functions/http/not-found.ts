// Lambda entry: API Gateway's $default route. A method and path that no route matches gets our error body (404
// not_found, or 405 method_not_allowed with Allow for a known path), as on the local stack, instead of API Gateway's
// own {"message":"Not Found"}.
import { ApiError } from '../../core/errors';
import { publicRoute } from './http-route';
import { routeTable } from './route-table';

/** Whether a route's path template (`/api/bot/{bot_id}/status`) matches a request path. */
const matches = (template: string, path: string) => {
  const want = template.split('/');
  const got = path.split('/');
  return (
    want.length === got.length &&
    want.every((part, i) => (/^\{\w+\}$/.test(part) ? got[i] !== '' : part === got[i]))
  );
};

/**
 * What a method and path no route takes get: 405 with the path's methods in Allow when the path exists with other
 * methods (as HTTP defines 405), else 404.
 */
export const noRouteError = (method: string, path: string) => {
  const allow: string[] = [...new Set(routeTable.filter((r) => matches(r.path, path)).map((r) => r.method))];
  if (allow.length > 0 && !allow.includes(method))
    return new ApiError('method_not_allowed', `${path} takes ${allow.join(', ')}, not ${method}`, { allow });
  return new ApiError('not_found', `no route ${method} ${path}`, { message: 'Not found.' });
};

export const handler = publicRoute(async (event) => {
  throw noRouteError(event.requestContext?.http?.method ?? 'GET', event.rawPath ?? '/');
});

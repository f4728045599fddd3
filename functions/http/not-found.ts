// Lambda entry: API Gateway's $default route. A method and path that no route matches gets our error body
// (404 not_found), as on the local stack, instead of API Gateway's own {"message":"Not Found"}.
import { ApiError } from '../../core/errors';
import { publicRoute } from './http-route';

export const noRouteError = (method: string, path: string) =>
  new ApiError('not_found', `no route ${method} ${path}`, { message: 'Not found.' });

export const handler = publicRoute(async (event) => {
  throw noRouteError(event.requestContext?.http?.method ?? 'GET', event.rawPath ?? '/');
});

// Lambda entry: the status and transcript routes (see routes.ts).
import { lambdaDeps, lambdaEntry } from '../runtime';
import { authenticatedRoute, botIdOfRequest } from './http-route';
import { statusFunctionRoute } from './routes';

export const handler = lambdaEntry(
  'status',
  authenticatedRoute(statusFunctionRoute, lambdaDeps),
  botIdOfRequest,
);

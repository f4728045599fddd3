// Lambda entry: the status and transcript routes (see routes.ts).
import { lambdaDeps } from '../runtime';
import { authenticatedRoute } from './http-route';
import { statusFunctionRoute } from './routes';

export const handler = authenticatedRoute(statusFunctionRoute, lambdaDeps);

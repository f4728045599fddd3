// Lambda entry: status route (see routes.ts).
import { lambdaDeps } from '../runtime';
import { authenticatedRoute } from './http-route';
import { statusRoute } from './routes';

export const handler = authenticatedRoute(statusRoute, lambdaDeps);

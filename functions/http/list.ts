// Lambda entry: list route (see routes.ts).
import { lambdaDeps } from '../runtime';
import { authenticatedRoute } from './http-route';
import { listRoute } from './routes';

export const handler = authenticatedRoute(listRoute, lambdaDeps);

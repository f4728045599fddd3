// Lambda entry: join route (see routes.ts).
import { lambdaDeps } from '../runtime';
import { authenticatedRoute } from './http-route';
import { joinRoute } from './routes';

export const handler = authenticatedRoute(joinRoute, lambdaDeps);

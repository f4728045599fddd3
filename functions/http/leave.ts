// Lambda entry: leave route (see routes.ts).
import { lambdaDeps } from '../runtime';
import { authenticatedRoute } from './http-route';
import { leaveRoute } from './routes';

export const handler = authenticatedRoute(leaveRoute, lambdaDeps);

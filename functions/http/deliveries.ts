// Lambda entry: deliveries route (see routes.ts).
import { lambdaDeps } from '../runtime';
import { authenticatedRoute } from './http-route';
import { deliveriesRoute } from './routes';

export const handler = authenticatedRoute(deliveriesRoute, lambdaDeps);

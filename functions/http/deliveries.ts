// Lambda entry: deliveries route (see routes.ts).
import { lambdaDeps, lambdaEntry } from '../runtime';
import { authenticatedRoute, botIdOfRequest } from './http-route';
import { deliveriesRoute } from './routes';

export const handler = lambdaEntry(
  'deliveries',
  authenticatedRoute(deliveriesRoute, lambdaDeps),
  botIdOfRequest,
);

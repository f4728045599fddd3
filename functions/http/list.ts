// Lambda entry: list route (see routes.ts).
import { lambdaDeps, lambdaEntry } from '../runtime';
import { authenticatedRoute, botIdOfRequest } from './http-route';
import { listRoute } from './routes';

export const handler = lambdaEntry('list', authenticatedRoute(listRoute, lambdaDeps), botIdOfRequest);

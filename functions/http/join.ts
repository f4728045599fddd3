// Lambda entry: join route (see routes.ts).
import { lambdaDeps, lambdaEntry } from '../runtime';
import { authenticatedRoute, botIdOfRequest } from './http-route';
import { joinRoute } from './routes';

export const handler = lambdaEntry('join', authenticatedRoute(joinRoute, lambdaDeps), botIdOfRequest);

// Lambda entry: leave route (see routes.ts).
import { lambdaDeps, lambdaEntry } from '../runtime';
import { authenticatedRoute, botIdOfRequest } from './http-route';
import { leaveRoute } from './routes';

export const handler = lambdaEntry('leave', authenticatedRoute(leaveRoute, lambdaDeps), botIdOfRequest);

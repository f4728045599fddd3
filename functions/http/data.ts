// Lambda entry: the meeting data deletion route (see routes.ts).
import { lambdaDeps, lambdaEntry } from '../runtime';
import { authenticatedRoute, botIdOfRequest } from './http-route';
import { dataRoute } from './routes';

export const handler = lambdaEntry('data', authenticatedRoute(dataRoute, lambdaDeps), botIdOfRequest);

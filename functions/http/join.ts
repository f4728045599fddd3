// Lambda entry: join route (see routes.ts); counts each join by outcome (core/metrics.ts).
import { joinOutcomeOf, metrics } from '../../core/metrics';
import { flushingMetrics, lambdaDeps, lambdaEntry } from '../runtime';
import { authenticatedRoute, botIdOfRequest, type HttpHandler } from './http-route';
import { joinRoute } from './routes';

const countingJoins =
  (inner: HttpHandler): HttpHandler =>
  async (event) => {
    const result = await inner(event);
    const outcome = joinOutcomeOf(result.statusCode);
    if (outcome) metrics.join(outcome);
    return result;
  };

export const handler = lambdaEntry(
  'join',
  flushingMetrics(countingJoins(authenticatedRoute(joinRoute, lambdaDeps))),
  botIdOfRequest,
);

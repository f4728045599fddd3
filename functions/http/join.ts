// Lambda entry: join route (see routes.ts); counts each join by outcome (core/metrics.ts).
import { joinOutcomeOf, metrics } from '../../core/metrics';
import { flushingMetrics, lambdaDeps } from '../runtime';
import { authenticatedRoute, type HttpHandler } from './http-route';
import { joinRoute } from './routes';

const countingJoins =
  (inner: HttpHandler): HttpHandler =>
  async (event) => {
    const result = await inner(event);
    const outcome = joinOutcomeOf(result.statusCode);
    if (outcome) metrics.join(outcome);
    return result;
  };

export const handler = flushingMetrics(countingJoins(authenticatedRoute(joinRoute, lambdaDeps)));

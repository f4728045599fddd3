// Lambda entry: join route (see routes.ts); counts each join by outcome (core/metrics.ts).
import { joinOutcomeOf, metrics } from '../../core/metrics';
import { flushingMetrics, lambdaDeps, lambdaEntry } from '../runtime';
import { authenticatedRoute, botIdOfRequest, type HttpHandler } from './http-route';
import { joinRoute } from './routes';

const countingJoins =
  (inner: HttpHandler): HttpHandler =>
  async (event) => {
    const result = await inner(event);
    const outcome = joinOutcomeOf(
      result.statusCode,
      result.statusCode === 503 ? errorCodeOf(result.body) : undefined,
    );
    if (outcome) metrics.join(outcome);
    return result;
  };

/** The `error` of an error body (which 503 it is); undefined for anything else. */
function errorCodeOf(body: string | undefined): string | undefined {
  try {
    const error = (JSON.parse(body ?? '') as { error?: unknown }).error;
    return typeof error === 'string' ? error : undefined;
  } catch {
    return undefined;
  }
}

export const handler = lambdaEntry(
  'join',
  flushingMetrics(countingJoins(authenticatedRoute(joinRoute, lambdaDeps))),
  botIdOfRequest,
);

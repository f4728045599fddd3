// The HTTP API: every route of functions/http/route-table.ts to its own function,
// with stage throttling and JSON access logs. Authentication runs in the handlers (ARCHITECTURE.md).
import { Duration } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { Construct } from 'constructs';
import { type RouteName, routeTable } from '../../functions/http/route-table';
import { functionLimits, routeLimits } from '../limits';
import type { MeetingBotSettings } from '../settings';
import type { BotRuntime } from './bot-runtime';
import type { BotData } from './data';
import { logGroup, ServiceFunction } from './service-function';

export class Api extends Construct {
  readonly httpApi: apigw.HttpApi;
  readonly stage: apigw.HttpStage;
  readonly functions = new Map<RouteName, ServiceFunction>();
  readonly notFoundFunction: ServiceFunction;

  constructor(
    scope: Construct,
    id: string,
    { settings, data, runtime }: { settings: MeetingBotSettings; data: BotData; runtime: BotRuntime },
  ) {
    super(scope, id);
    const cors = settings.corsAllowedOrigins;

    this.httpApi = new apigw.HttpApi(this, 'HttpApi', {
      apiName: `meeting-bot-${settings.stage}`,
      description: 'Meeting Bot Service API',
      createDefaultStage: false,
      ...(cors.length > 0
        ? {
            corsPreflight: {
              allowOrigins: cors,
              allowMethods: [
                apigw.CorsHttpMethod.GET,
                apigw.CorsHttpMethod.POST,
                apigw.CorsHttpMethod.DELETE,
              ],
              allowHeaders: ['authorization', 'content-type', 'idempotency-key'],
              exposeHeaders: ['retry-after', 'x-request-id', 'idempotent-replayed'],
              maxAge: Duration.hours(1),
            },
          }
        : {}),
    });

    const accessLogs = logGroup(this, 'AccessLogs', settings);
    this.stage = new apigw.HttpStage(this, 'DefaultStage', {
      httpApi: this.httpApi,
      stageName: '$default',
      autoDeploy: true,
      throttle: { rateLimit: settings.apiThrottleRateLimit, burstLimit: settings.apiThrottleBurstLimit },
      accessLogSettings: {
        destination: new apigw.LogGroupLogDestination(accessLogs),
        format: AccessLogFormat.custom(
          JSON.stringify({
            requestId: '$context.requestId',
            time: '$context.requestTime',
            method: '$context.httpMethod',
            path: '$context.path',
            routeKey: '$context.routeKey',
            status: '$context.status',
            latencyMs: '$context.responseLatency',
            integrationStatus: '$context.integrationStatus',
            integrationError: '$context.integrationErrorMessage',
            sourceIp: '$context.identity.sourceIp',
            userAgent: '$context.identity.userAgent',
            responseLength: '$context.responseLength',
          }),
        ),
      },
    });

    const commonEnv = { TABLE_NAME: data.table.tableName };
    const integrations = new Map<RouteName, HttpLambdaIntegration>();
    for (const route of routeTable) {
      let fn = this.functions.get(route.name);
      if (!fn) {
        fn = this.routeFunction(route.name, settings, {
          ...(route.name === 'openapi' ? {} : commonEnv),
          // join starts tasks and leave stops them; both build the runner from this environment.
          ...(route.name === 'join' || route.name === 'leave' ? runtime.runnerEnvironment() : {}),
          ...(route.name === 'join' ? { DAILY_ROOM_DOMAINS: settings.dailyRoomDomains.join(',') } : {}),
        });
        this.functions.set(route.name, fn);
        integrations.set(route.name, new HttpLambdaIntegration(`${route.name}-integration`, fn.function));
      }
      this.httpApi.addRoutes({
        path: route.path,
        methods: [apigw.HttpMethod[route.method]],
        integration: integrations.get(route.name)!,
      });
    }

    // Every other method and path: our 404 error body rather than API Gateway's {"message":"Not Found"}.
    this.notFoundFunction = new ServiceFunction(this, 'NotFoundFunction', {
      entry: 'functions/http/not-found.ts',
      settings,
      environment: {},
      description: 'HTTP API $default route: 404 not_found in the service error body',
      limits: functionLimits.notFound,
    });
    // Under the HTTP API, with its routes (and their cdk-nag acknowledgement: authentication is in the handlers).
    new apigw.HttpRoute(this.httpApi, 'DefaultRoute', {
      httpApi: this.httpApi,
      routeKey: apigw.HttpRouteKey.DEFAULT,
      integration: new HttpLambdaIntegration('not-found-integration', this.notFoundFunction.function),
    });
  }

  private routeFunction(name: RouteName, settings: MeetingBotSettings, environment: Record<string, string>) {
    return new ServiceFunction(this, `${name[0]!.toUpperCase()}${name.slice(1)}Function`, {
      entry: `functions/http/${name}.ts`,
      settings,
      environment,
      description: `HTTP route function: ${name}`,
      limits: routeLimits(name),
    });
  }
}

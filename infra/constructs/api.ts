// The HTTP API: every route of functions/http/route-table.ts (plus deliveries once it exists) to its own function,
// with stage throttling and JSON access logs. Authentication runs in the handlers (ARCHITECTURE.md).
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { type RouteSpec, routeTable } from '../../functions/http/route-table';
import { functionLimits, routeLimits } from '../limits';
import type { MeetingBotSettings } from '../settings';
import type { BotRuntime } from './bot-runtime';
import type { BotData } from './data';
import { entryExists, ServiceFunction } from './service-function';

/** The deliveries route: added when the route table does not list it yet. */
export const deliveriesRoute = {
  method: 'GET',
  path: '/api/bot/{bot_id}/deliveries',
  name: 'deliveries',
} as const;

export type FunctionName = RouteSpec['name'] | typeof deliveriesRoute.name;

export interface DeployedRoute {
  method: RouteSpec['method'];
  path: string;
  name: FunctionName;
}

/**
 * The routes to deploy: the route table (plus deliveries), each only when its entry file exists, so synthesis
 * never depends on unfinished work.
 */
export function deployedRoutes(): DeployedRoute[] {
  const routes: DeployedRoute[] = [...routeTable];
  if (!routes.some((r) => r.path === deliveriesRoute.path)) routes.push(deliveriesRoute);
  return routes.filter((r) => entryExists(httpEntry(r.name)));
}

export const httpEntry = (name: FunctionName) => `functions/http/${name}.ts`;

export interface ApiProps {
  settings: MeetingBotSettings;
  data: BotData;
  runtime: BotRuntime;
}

export class Api extends Construct {
  readonly httpApi: apigw.HttpApi;
  readonly stage: apigw.HttpStage;
  readonly functions = new Map<FunctionName, ServiceFunction>();
  readonly routes: DeployedRoute[];
  readonly notFoundFunction: ServiceFunction;

  constructor(scope: Construct, id: string, props: ApiProps) {
    super(scope, id);
    const { settings, data, runtime } = props;
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

    const accessLogs = new logs.LogGroup(this, 'AccessLogs', {
      retention: settings.logRetentionDays,
      removalPolicy: settings.production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
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

    this.routes = deployedRoutes();

    const commonEnv = { TABLE_NAME: data.table.tableName };
    const integrations = new Map<FunctionName, HttpLambdaIntegration>();
    for (const route of this.routes) {
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

  private routeFunction(
    name: FunctionName,
    settings: MeetingBotSettings,
    environment: Record<string, string>,
  ) {
    return new ServiceFunction(this, `${name[0]!.toUpperCase()}${name.slice(1)}Function`, {
      entry: httpEntry(name),
      settings,
      environment,
      description: `HTTP route function: ${name}`,
      limits: routeLimits(name),
    });
  }
}

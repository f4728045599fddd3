// Every HTTP route of the API, named for its Lambda function; the local server and the CDK API both read this.

export type RouteName = 'join' | 'leave' | 'status' | 'deliveries' | 'list' | 'data' | 'openapi';

export interface RouteSpec {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  name: RouteName;
}

export const routeTable: readonly RouteSpec[] = [
  { method: 'POST', path: '/api/bot/join', name: 'join' },
  { method: 'POST', path: '/v1/bots/leave/{bot_id}', name: 'leave' },
  { method: 'POST', path: '/v1/bot/{bot_id}/stop', name: 'leave' },
  { method: 'GET', path: '/api/bot/{bot_id}/status', name: 'status' },
  // Served by the status function too: the same reads of the same bot, so no function of its own.
  { method: 'GET', path: '/api/bot/{bot_id}/transcript', name: 'status' },
  { method: 'GET', path: '/api/bot/{bot_id}/recording', name: 'status' },
  { method: 'GET', path: '/api/bot/{bot_id}/deliveries', name: 'deliveries' },
  { method: 'GET', path: '/api/bots', name: 'list' },
  { method: 'DELETE', path: '/api/bot/{bot_id}/data', name: 'data' },
  { method: 'GET', path: '/openapi.json', name: 'openapi' },
];

// Lambda entry: GET /openapi.json, public.
import { buildOpenApiDocument } from '../../core/openapi';
import { publicRoute } from './http-route';

const document = buildOpenApiDocument();

export const openApiRoute = async () => ({ status: 200, body: document });
export const handler = publicRoute(openApiRoute);

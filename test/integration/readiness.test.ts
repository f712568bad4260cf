import { describe, expect, it } from 'vitest';
import { handler } from '../../functions/ops/readyz.js';
import { buildApiGatewayEvent } from '../../infra/local/apigw-event.js';
import { createLambdaContext } from '../../infra/local/lambda-context.js';
import { resetDbClient } from '../../shared/db/client.js';
import { useTestEnvironment } from '../support/environment.js';

useTestEnvironment({ queues: false, bucket: false });

const call = async () => {
  const event = buildApiGatewayEvent({ method: 'GET', url: '/readyz', rawHeaders: ['host', 'localhost'] }, { routeKey: 'GET /readyz' });
  const res = await handler(event, createLambdaContext({ functionName: 'getReadiness', timeoutSeconds: 10 }));
  return { status: res.statusCode, body: JSON.parse(res.body as string) };
};

describe('GET /readyz', () => {
  it('is 200 when the table answers and the isolation checks hold', async () => {
    expect(await call()).toEqual({ status: 200, body: { status: 'ready', database: 'ok', tenant_isolation: 'ok', admin_plane: 'unwired' } });
  });

  it('is 503 when the database does not answer, and says which check failed', async () => {
    const endpoint = process.env.DYNAMODB_ENDPOINT;
    process.env.DYNAMODB_ENDPOINT = 'http://127.0.0.1:9'; // discard port: nothing listens
    resetDbClient();
    try {
      const res = await call();
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ status: 'not_ready', database: 'unavailable', tenant_isolation: 'ok', admin_plane: 'unwired' });
    } finally {
      process.env.DYNAMODB_ENDPOINT = endpoint;
      resetDbClient();
    }
  });
});

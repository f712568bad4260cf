/** Free TCP ports for the local runtime's internal services (never fixed ports). */
import { createServer } from 'node:net';

/**
 * Asks the OS for a port that is free right now. There is a short window before the
 * caller binds it in which another process could take it; callers that spawn a process
 * on the port (DynamoDB Local) retry on a bind failure.
 */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', reject);
    srv.listen({ port: 0, host, exclusive: true }, () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close((err) => (err ? reject(err) : resolve(port)));
    });
  });
}

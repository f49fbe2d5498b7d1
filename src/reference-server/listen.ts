/** A server listening: resolves its address, or rejects with the error that kept it from listening. */
import type { AddressInfo, Server } from 'node:net';

/** `exclusive`: a port is never shared with a cluster worker's listener. */
export function listen(server: Server, host: string, port: number): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    server.once('error', onError);
    server.listen({ host, port, exclusive: true }, () => {
      server.off('error', onError);
      resolve(server.address() as AddressInfo);
    });
  });
}

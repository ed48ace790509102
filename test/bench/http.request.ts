import http from 'node:http';

/**
 * One HTTP request with plain `node:http` (the bench clients share the machine with the servers,
 * and `fetch` spends about twice the CPU on a megabyte body); a JSON body when one is given.
 */
export function httpRequest(url: string, method: string, body: Buffer | undefined, headers: Record<string, string> = {}, agent?: http.Agent): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const sent = http.request(url, { method, agent, headers: { ...headers, ...(body ? { 'content-type': 'application/json', 'content-length': body.length } : {}) } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
      response.on('error', reject);
    });
    sent.on('error', reject);
    sent.end(body);
  });
}

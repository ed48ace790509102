import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import tls from 'node:tls';
import { resolveOutbound } from './outbound-address.js';

type Created = (error: Error | null, socket: Duplex) => void;

/**
 * Opens each socket to the address {@link resolveOutbound} checked, never to the name: Node's own
 * resolution would happen after the check and could answer another address. TLS keeps the name
 * as the server name (the agent computed it from the request's host), so certificates are checked
 * against what the tenant wrote.
 */
function connectChecked(options: http.ClientRequestArgs, open: (options: net.NetConnectOpts & tls.ConnectionOptions) => Duplex, created: Created): undefined {
  const host = String(options.host ?? options.hostname ?? 'localhost');
  const port = Number(options.port ?? (open === tlsOpen ? 443 : 80));
  resolveOutbound(host, port).then(
    ({ address }) => {
      try {
        // `path` (a request's path, or a socketPath) would make net.connect open a Unix socket.
        const { path: _path, socketPath: _socket, ...rest } = options;
        created(null, open({ ...(rest as net.NetConnectOpts), host: address, port, lookup: undefined }));
      } catch (error) {
        created(error as Error, undefined as unknown as Duplex);
      }
    },
    (error: Error) => created(error, undefined as unknown as Duplex),
  );
  return undefined;
}

const netOpen = (options: net.NetConnectOpts) => net.connect(options);
const tlsOpen = (options: tls.ConnectionOptions) => tls.connect(options);

class OutboundHttpAgent extends http.Agent {
  override createConnection(options: http.ClientRequestArgs, callback?: Created): undefined {
    // Node's agent takes the socket from the callback when none is returned (documented).
    return connectChecked(options, netOpen, callback!);
  }
}

class OutboundHttpsAgent extends https.Agent {
  override createConnection(options: http.ClientRequestArgs, callback?: Created): undefined {
    return connectChecked(options, tlsOpen, callback!);
  }
}

/**
 * New HTTP and HTTPS agents for connections a tenant's configuration aims (destinations): every
 * socket goes to an address checked against the outbound policy, or fails with
 * OutboundAddressError. New ones each call: a client that is destroyed destroys its agents' sockets.
 */
export function outboundAgents(): { http: http.Agent; https: https.Agent } {
  return { http: new OutboundHttpAgent({ keepAlive: true, maxSockets: 50 }), https: new OutboundHttpsAgent({ keepAlive: true, maxSockets: 50 }) };
}

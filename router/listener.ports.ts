import type { Server } from 'node:http';

/** The public port, held from the first moment of a start and taken over by the platform's listener once every part is up. */
export interface PortHold {
  /** Puts the platform's listener on the port; answers its URL. */
  takeOver(server: Server): Promise<string>;
}

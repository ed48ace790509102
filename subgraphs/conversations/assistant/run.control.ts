/** Asks the process carrying out a run to stop it (cancel). */
export interface RunControl {
  run_id: string;
  action: 'cancel';
}

export const controlTopic = (conversationId: string) => `conversation_control:${conversationId}`;

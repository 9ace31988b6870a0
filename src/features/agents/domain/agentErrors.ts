/** Domain errors of the agent aggregate, as values. */
export type AgentError =
  | { readonly kind: 'AgentAlreadyExists'; readonly agentId: string }
  | { readonly kind: 'AgentNotFound'; readonly agentId: string };

export const describeAgentError = (error: AgentError): string => {
  switch (error.kind) {
    case 'AgentAlreadyExists':
      return `Agent ${error.agentId} already exists`;
    case 'AgentNotFound':
      return `Agent ${error.agentId} not found`;
  }
};

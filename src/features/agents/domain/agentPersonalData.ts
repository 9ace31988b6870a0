import { DOCUMENT_FIELDS, nothingPersonal, type PersonalDataDeclaration } from '../../../shared/PersonalData.js';

/** An AI agent is no person: none of its fields is personal. */
export const agentPersonalData: PersonalDataDeclaration = {
  events: {
    AgentCreated: nothingPersonal('agentId', 'companyId', 'name', 'description', 'language', 'createdAt'),
    AgentUpdated: nothingPersonal('agentId', 'companyId', 'changes.name', 'changes.description', 'changes.language', 'updatedAt'),
  },
  readModels: {
    agents: nothingPersonal(
      ...DOCUMENT_FIELDS,
      ...['id', 'name', 'description', 'language', 'status', 'channels[]', 'createdAt', 'updatedAt'].map((field) => `agent.${field}`),
    ),
  },
};

import { listCompanyDocuments } from '../listCompanyDocuments.js';
import * as E from 'fp-ts/lib/Either.js';
import { createAgent, updateAgent, AGENT_CHANNELS, AgentChannels, AgentDescription, AgentName, toAgentView, AGENT_STATUSES, AgentStatusInput, AGENT_DEFAULTS, describeAgentError, LanguageTag, agentOf, agentsProjection, type Agent, type AgentFieldChanges } from '../../features/agents/index.js';
import { describeCompanyError } from '../../features/companies/index.js';
import { print, type RegisterCommands } from '../CliContext.js';
import { cliCommandDeps, cliMetadata } from '../cliWrites.js';
import { withStores } from '../withStores.js';
import { decodeOption, requireCompany } from './companies.js';

interface FieldOptions {
  name?: string;
  description?: string;
  channels?: string;
  language?: string;
  status?: string;
  json?: boolean;
}

/** A comma-separated list, entries trimmed, empty ones dropped. */
const splitList = (list: string): string[] =>
  list
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');

/** The validated fields among the options given (each bad one throws a message naming its option). */
const decodeFields = (options: FieldOptions): AgentFieldChanges => ({
  ...(options.name !== undefined ? { name: decodeOption(AgentName, '--name', options.name) } : {}),
  ...(options.description !== undefined ? { description: decodeOption(AgentDescription, '--description', options.description) } : {}),
  ...(options.channels !== undefined ? { channels: decodeOption(AgentChannels, '--channels', splitList(options.channels)) } : {}),
  ...(options.language !== undefined ? { language: decodeOption(LanguageTag, '--language', options.language) } : {}),
  ...(options.status !== undefined ? { status: decodeOption(AgentStatusInput, '--status', options.status) } : {}),
});

const summary = (agent: Agent): string => `${agent.status}; channels ${agent.channels.join(',')}; language ${agent.language}`;

const FIELD_HELP = {
  description: 'what the agent is for, at most 1000 characters',
  channels: `comma-separated list of ${AGENT_CHANNELS.join(', ')}`,
  language: 'BCP 47 language tag, e.g. en or de-DE',
  status: AGENT_STATUSES.join(' or '),
};

export const registerAgents: RegisterCommands = (program, context) => {
  const agents = program.command('agents').description('manage AI agents');

  agents
    .command('create')
    .description('create an AI agent in a company')
    .requiredOption('--company <id>', 'id of an existing company')
    .requiredOption('--name <name>', 'display name')
    .option('--description <text>', `${FIELD_HELP.description} (default: none)`)
    .option('--channels <list>', `${FIELD_HELP.channels} (default: ${AGENT_DEFAULTS.channels.join(',')})`)
    .option('--language <tag>', `${FIELD_HELP.language} (default: ${AGENT_DEFAULTS.language})`)
    .option('--status <status>', `${FIELD_HELP.status} (default: ${AGENT_DEFAULTS.status})`)
    .option('--json', 'print one JSON document')
    .action(async (options: FieldOptions & { company: string; name: string }) => {
      const { name, ...fields } = decodeFields(options);
      if (name === undefined) throw new Error('--name is required');
      const companyId = options.company;
      const outcome = await withStores(context, ({ eventStore }) =>
        createAgent(cliCommandDeps(eventStore), { companyId, fields: { name, ...fields }, metadata: cliMetadata() }),
      );
      if (E.isLeft(outcome)) {
        const error = outcome.left;
        throw new Error(error.kind === 'CompanyNotFound' ? describeCompanyError(error) : describeAgentError(error));
      }
      const { agent } = outcome.right;
      const { id, ...view } = toAgentView(agent);
      print(
        context,
        options.json === true,
        { id, companyId: agent.companyId, ...view },
        `Created agent "${view.name}" in company ${companyId} with id ${id} (${summary(agent)})`,
      );
    });

  agents
    .command('update')
    .description('change some fields of an AI agent (the others keep their values)')
    .argument('<agentId>', 'id of the agent')
    .option('--name <name>', 'display name')
    .option('--description <text>', `${FIELD_HELP.description}; "" clears it`)
    .option('--channels <list>', FIELD_HELP.channels)
    .option('--language <tag>', FIELD_HELP.language)
    .option('--status <status>', FIELD_HELP.status)
    .option('--json', 'print one JSON document')
    .action(async (agentId: string, options: FieldOptions) => {
      const changes = decodeFields(options);
      if (Object.keys(changes).length === 0) {
        throw new Error('give at least one of --name, --description, --channels, --language, --status');
      }
      const outcome = await withStores(context, ({ eventStore }) =>
        updateAgent(cliCommandDeps(eventStore), { agentId, changes, metadata: cliMetadata() }),
      );
      if (E.isLeft(outcome)) throw new Error(describeAgentError(outcome.left));
      const { agent, changed } = outcome.right;
      print(
        context,
        options.json === true,
        toAgentView(agent),
        changed.length === 0
          ? `Agent "${agent.name}" (${agentId}) unchanged (${summary(agent)})`
          : `Updated agent "${agent.name}" (${agentId}): ${changed.join(', ')} (${summary(agent)})`,
      );
    });

  agents
    .command('list')
    .description("list a company's AI agents, oldest first")
    .requiredOption('--company <id>', 'id of an existing company')
    .option('--json', 'print one JSON document')
    .action(async (options: { company: string; json?: boolean }) => {
      const listed = await withStores(context, async (stores, config) => {
        await requireCompany(stores.eventStore, options.company);
        return (await listCompanyDocuments(context, stores, config, agentsProjection, options.company)).map(agentOf);
      });
      if (options.json === true) {
        print(context, true, listed, '');
        return;
      }
      if (listed.length === 0) {
        context.out(`No agents for company ${options.company}`);
        return;
      }
      for (const agent of listed) {
        context.out(`${agent.id}  ${agent.status}  ${agent.name}  ${agent.channels.join(',')}  ${agent.language}  created ${agent.createdAt}`);
      }
    });
};

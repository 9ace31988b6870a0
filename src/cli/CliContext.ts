import type { Command } from 'commander';

/** What every CLI command gets: where to print, so tests can capture output. */
export interface CliContext {
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
  readonly env: NodeJS.ProcessEnv;
}

/** A module that adds its commands to the program. */
export type RegisterCommands = (program: Command, context: CliContext) => void;

/** Prints one JSON document (with --json) or a readable line. */
export const print = (context: CliContext, json: boolean, value: unknown, readable: string): void => {
  context.out(json ? JSON.stringify(value) : readable);
};

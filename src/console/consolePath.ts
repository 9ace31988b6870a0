/** Where the console is served, under the base path. */
export const CONSOLE_PATH = '/console';

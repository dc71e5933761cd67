// What help lists of a command a run has not built.
// Made by `npm run build` from the command modules (src/build/command-table.ts), not by hand:
// the build rewrites it, and its test fails while it differs from the modules.
import type { CommandFacts } from './shared/exec.js';

export const COMMAND_TABLE: Readonly<Record<string, CommandFacts>> = {
  "job status": {
    aliases: [],
    description: "show a job (also `crawl job <id>`), or several, a row each",
    term: "status [options] <id...>",
  },
  "job watch": {
    aliases: [],
    description: "poll jobs until they reach a terminal status; exits with the worst of their codes",
    term: "watch [options] <id...>",
  },
  "job pages": {
    aliases: [],
    description: "every crawled page of a job, one JSON record a line",
    term: "pages [options] <id>",
  },
  "job cancel": {
    aliases: [],
    description: "cancel a job (DELETE) and show the resulting status",
    term: "cancel [options] <id>",
  },
  "keys create": {
    aliases: [],
    description: "create a key; the full key is printed once, on stdout, unless --save or --output-file keeps it",
    term: "create [options] <name>",
  },
  "keys list": {
    aliases: [],
    description: "list active keys; the key in use is marked",
    term: "list",
  },
  "keys revoke": {
    aliases: [],
    description: "revoke keys by id, unique key prefix or unique name (cannot be undone)",
    term: "revoke [options] <key...>",
  },
  "keys prune": {
    aliases: [],
    description: "revoke keys not used for a while; never the key in use",
    term: "prune [options]",
  },
  "keys rotate": {
    aliases: [],
    description: "replace the key in use without losing access",
    term: "rotate [options]",
  },
  "auth login": {
    aliases: [],
    description: "store a key after checking it with the service",
    term: "login [options]",
  },
  "auth status": {
    aliases: [],
    description: "where the key comes from and whether the service accepts it",
    term: "status",
  },
  "auth token": {
    aliases: [],
    description: "print the key in use (for scripts)",
    term: "token",
  },
  "auth logout": {
    aliases: [],
    description: "forget this profile's key",
    term: "logout",
  },
  "config get": {
    aliases: [],
    description: "print a setting of the profile (api-key masked); says when a flag or the environment overrides it",
    term: "get <key>",
  },
  "config set": {
    aliases: [],
    description: "set a setting of the profile (keys are stored with `crawl auth login`)",
    term: "set <key> <value>",
  },
  "config unset": {
    aliases: [],
    description: "remove a setting from the profile",
    term: "unset <key>",
  },
  "config list": {
    aliases: [],
    description: "the settings commands use, and where each comes from: flag, environment, config file or default (api-key masked)",
    term: "list",
  },
  "config path": {
    aliases: [],
    description: "print the config file path",
    term: "path",
  },
  api: {
    aliases: [],
    description: "make an authenticated request to any path of the service, as gh api does; the answer as received",
    term: "api [options] <path>",
  },
  sandbox: {
    aliases: [],
    description: "run a local server that behaves like the service; --reset restores the demo jobs of one that runs",
    term: "sandbox [options]",
  },
  completion: {
    aliases: [],
    description: "print the shell completion script for bash, zsh, fish or powershell (nothing is written to your rc files)",
    term: "completion <shell>",
  },
  __complete: {
    aliases: [],
    description: "the candidates for the last word (used by the completion scripts)",
    term: "__complete [words...]",
  },
};

import { DisplayName } from '../../../shared/DisplayName.js';

/** A key's label, so that a person can tell a company's keys apart ("Zapier production"); see DisplayName. */
export const ApiKeyName = DisplayName;
export type ApiKeyName = DisplayName;

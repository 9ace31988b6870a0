import { DisplayName } from '../../../shared/DisplayName.js';

/** A company's display name (see DisplayName). */
export const CompanyName = DisplayName;
export type CompanyName = DisplayName;

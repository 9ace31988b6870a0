import { requiredText } from '../../../shared/textCodecs.js';

/** The most characters a suspension's reason may have. */
export const SUSPENSION_REASON_MAX = 500;

/** Why a company is suspended: trimmed, 1 to 500 characters. */
export const SuspensionReason = requiredText('reason', SUSPENSION_REASON_MAX);
export type SuspensionReason = string;

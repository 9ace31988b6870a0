import { onEveryReadModelEngine } from '../support/readModelEngines.js';
import { recordSearchContract } from './recordSearch.contract.js';

onEveryReadModelEngine('Record search', recordSearchContract);

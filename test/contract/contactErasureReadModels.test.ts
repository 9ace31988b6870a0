import { onEveryReadModelEngine } from '../support/readModelEngines.js';
import { contactErasureReadModelsContract } from './contactErasureReadModels.contract.js';

onEveryReadModelEngine('Contact erasure read models', contactErasureReadModelsContract);

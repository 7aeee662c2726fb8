import { runStoreContract } from './contract.js';
import { createMemoryStore } from './memory-store.js';

runStoreContract('memory', () => createMemoryStore());

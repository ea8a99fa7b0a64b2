import './market.js';
import './kinds.js';
import './provider.js';
import './filter.js';
import './connection.js';

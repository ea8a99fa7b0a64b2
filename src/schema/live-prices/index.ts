import './prices.js';
import './wallet-value.js';

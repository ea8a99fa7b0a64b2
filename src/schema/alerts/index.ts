import './app.js';
import './channel.js';
import './notification.js';
import './subscriber.js';
import './mutations/index.js';

'use strict';

module.exports = { ...require('./retry') };

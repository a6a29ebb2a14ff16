#!/usr/bin/env node
import "../dist/daemon/main.js";

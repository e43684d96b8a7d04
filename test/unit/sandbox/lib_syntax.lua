-- kgen's embedded modules are not available to models
require "ops.broken"

-- a model-folder module that does not parse

require "util.broken"

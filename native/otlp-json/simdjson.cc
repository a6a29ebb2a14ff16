// simdjson's implementation, compiled from the @nozbe/simdjson package wherever npm put it
// (binding.gyp adds its folder to the include path).
#include "simdjson.cpp"

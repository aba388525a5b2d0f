#include "quantity/quantity.h"

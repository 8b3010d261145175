#pragma once
#ifndef SCALE_BIAS
#define SCALE_BIAS 1
#endif

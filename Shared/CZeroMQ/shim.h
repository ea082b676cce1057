#ifndef PODIUM_CZEROMQ_SHIM_H
#define PODIUM_CZEROMQ_SHIM_H
#include <zmq.h>
#endif

/* version.h - kgen's version, stamped into every generated file. */
#ifndef KG_VERSION_H
#define KG_VERSION_H
#define KGEN_VERSION "0.1.0"
#endif

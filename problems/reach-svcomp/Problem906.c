// The SV-COMP shape of a RERS problem: input from __VERIFIER_nondet_int(),
// restricted by __VERIFIER_assume, errors as reach_error_N() calls.
// Same rules as reach-plain (Problem901). Hand-worked answers:
//   start (a=1,b=0) --A--> (2,0) --B--> (3,1): error 0 on the way in.
//   (2,0) --A--> (1,0).  Nothing else fires (invalid input).
//   error 0: a==3 && b==1 -> reachable, witness A B.
//   error 1: a==2 && b==2 -> b is only ever 0 or 1: unreachable.
#include <stdio.h>

extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assume(int);
extern void reach_error_0(void);
extern void reach_error_1(void);

int cf = 1;
int a = 1;
int b = 0;

void errorCheck() {
    if ((a == 3 && b == 1)) {
        cf = 0;
        reach_error_0();
    }
    if ((a == 2 && b == 2)) {
        cf = 0;
        reach_error_1();
    }
}

void calculate_output(int input) {
    cf = 1;
    if ((cf == 1 && a == 1) && (input == 1)) {
        cf = 0;
        a = 2;
        printf("%d\n", 21);
    }
    if ((cf == 1 && a == 2) && (input == 2)) {
        cf = 0;
        a = 3;
        b = 1;
        printf("%d\n", 22);
    }
    if ((cf == 1 && (input == 1)) && a == 2) {
        cf = 0;
        a = 1;
        printf("%d\n", 23);
    }
    errorCheck();
    if (cf == 1)
        fprintf(stderr, "Invalid input: %d\n", input);
}

int main()
{
    while (1) {
        int input = __VERIFIER_nondet_int();
        __VERIFIER_assume((input == 1) || (input == 2) || (input == 3));
        calculate_output(input);
    }
}
